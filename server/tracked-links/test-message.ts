import { newId } from '../db/ids.ts';

/** Test sends store no message: their ids say so, and their links answer as previews. */
export const newTestMessageId = () => newId('tmsg');

export const isTestMessageId = (id: string) => id.startsWith('tmsg_');
