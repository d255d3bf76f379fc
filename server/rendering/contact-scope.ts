/** What a contact personalises a template with, as campaigns' messages have it: its attributes at the top, and as `contact`. */
export function contactScope(c: { email: string; first_name: string | null; last_name: string | null; tags: string[]; attributes: Record<string, unknown> }) {
  return {
    ...c.attributes,
    email: c.email,
    first_name: c.first_name,
    last_name: c.last_name,
    tags: c.tags,
    attributes: c.attributes,
    contact: { email: c.email, first_name: c.first_name, last_name: c.last_name, tags: c.tags, attributes: c.attributes },
  };
}
