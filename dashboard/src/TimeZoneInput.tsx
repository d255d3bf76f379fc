import { useId } from 'react';

/** The browser's own zones, offered as suggestions; the server checks the name typed. */
const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone')];

/** The zone this browser is in, e.g. `Europe/Paris`. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A text input for an IANA time zone name, suggesting the known ones as it is typed. */
export function TimeZoneInput({ name, defaultValue, disabled, required }: { name: string; defaultValue?: string; disabled?: boolean; required?: boolean }) {
  const list = useId();
  return (
    <>
      <input
        name={name}
        list={list}
        defaultValue={defaultValue}
        disabled={disabled}
        required={required}
        maxLength={64}
        placeholder="e.g. Europe/Paris"
        autoComplete="off"
      />
      <datalist id={list}>
        {ZONES.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
    </>
  );
}
