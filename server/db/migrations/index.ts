import { Migration20261121000000Foundation } from './Migration20261121000000Foundation.ts';

/** Every migration, in order. New ones are appended here. */
export const migrations = [Migration20261121000000Foundation];
