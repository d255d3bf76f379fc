/** SQL with its string literals (and `E''` escapes) replaced by `?`: the ORM writes values into its text. */
export const withoutLiterals = (text: string): string => text.replace(/(?:\bE)?'(?:[^']|'')*'/g, '?');

interface ExportedSpan {
  status: { code: number; message?: string };
  events: { name: string; attributes?: Record<string, unknown> }[];
}

/**
 * The span as exported, its errors by type only: a database error's or a refused request's
 * message may quote what was sent (an address, a value). The message stays in the log line,
 * which carries the trace id.
 */
export function scrubbed<S extends ExportedSpan>(span: S): S {
  const events = span.events.map((event) => {
    if (event.name !== 'exception' || !event.attributes) return event;
    const { 'exception.message': _message, 'exception.stacktrace': _stack, ...kept } = event.attributes;
    return { ...event, attributes: kept };
  });
  // The SDK's span keeps its methods (spanContext) on its prototype: this reads through to them.
  return Object.create(span, { status: { value: { code: span.status.code } }, events: { value: events } }) as S;
}
