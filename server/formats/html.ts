/** Text as HTML: the five characters that could end an element or attribute, as references. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
