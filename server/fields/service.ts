import type { components } from '../../generated/openapi.d.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/kysely.ts';
import { conflict, notFound, validationFailed } from '../contract/problem.ts';
import { MAX_FIELDS } from './rules.ts';
import { fieldStore, type FieldRecord } from './store.ts';

type Schemas = components['schemas'];
export type ContactFieldJson = Schemas['ContactField'];

export const fieldJson = (f: FieldRecord): ContactFieldJson => ({
  id: f.id,
  key: f.key,
  label: f.label,
  type: f.type,
  options: f.options,
  created_at: f.created_at.toISOString(),
  updated_at: f.updated_at.toISOString(),
});

/** A choice field's options: at least one, each once. */
function checkOptions(type: Schemas['ContactFieldType'], options: string[] | undefined): string[] {
  if (type !== 'choice') {
    if (options?.length) throw validationFailed([{ pointer: '/options', detail: `only a choice field has options; this one is ${type}` }]);
    return [];
  }
  if (!options?.length) throw validationFailed([{ pointer: '/options', detail: 'a choice field needs at least one option' }]);
  const seen = new Set<string>();
  options.forEach((option, i) => {
    if (seen.has(option)) throw validationFailed([{ pointer: `/options/${i}`, detail: `repeats "${option}"` }]);
    seen.add(option);
  });
  return options;
}

export class FieldService {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  async create(accountId: string, input: Schemas['ContactFieldCreate']): Promise<ContactFieldJson> {
    const options = checkOptions(input.type, input.options);
    if ((await fieldStore.count(this.db, accountId)) >= MAX_FIELDS) {
      throw validationFailed([{ pointer: '/key', detail: `an account has at most ${MAX_FIELDS} custom fields` }]);
    }
    const created = await fieldStore.insert(this.db, {
      id: newId('fld'),
      account_id: accountId,
      key: input.key,
      label: input.label,
      type: input.type,
      options,
    });
    if (!created) throw conflict('field_exists', `A custom field with the key ${input.key} exists.`);
    return fieldJson(created);
  }

  async list(accountId: string): Promise<Schemas['ContactFieldList']> {
    return { data: (await fieldStore.all(this.db, accountId)).map(fieldJson) };
  }

  async get(accountId: string, id: string): Promise<ContactFieldJson> {
    return fieldJson(await this.load(accountId, id));
  }

  async update(accountId: string, id: string, input: Schemas['ContactFieldUpdate']): Promise<ContactFieldJson> {
    const field = await this.load(accountId, id);
    const options = input.options === undefined ? undefined : checkOptions(field.type, input.options);
    const updated = await fieldStore.update(this.db, accountId, id, { label: input.label, options });
    if (!updated) throw notFound('custom field');
    return fieldJson(updated);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await fieldStore.remove(this.db, accountId, id))) throw notFound('custom field');
  }

  private async load(accountId: string, id: string): Promise<FieldRecord> {
    const field = await fieldStore.byId(this.db, accountId, id);
    if (!field) throw notFound('custom field');
    return field;
  }
}
