/** `LIKE 'text%'` on lower-cased text, the text's own wildcards escaped: a prefix, served by a text_pattern_ops index. */
export const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
