import { describe, expect, it } from 'vitest';
import { listOperations, loadContract, routeTable, validatorDocument } from './document.ts';

// Read as plain JSON: each test reaches into whatever part of the document it checks.
const doc: any = loadContract();
const forValidator: any = validatorDocument(doc);

describe('the contract as the server reads it', () => {
  it('lists every operation with a unique id and knows which are public', () => {
    const ops = listOperations(doc);
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    expect(
      ops
        .filter((o) => !o.authenticated)
        .map((o) => o.operationId)
        .sort(),
    ).toEqual(['Auth_login', 'Auth_refresh', 'Auth_register', 'PublicLists_subscribe']);
    expect(ops.find((o) => o.operationId === 'Campaigns_get')?.expressPath).toBe('/campaigns/:id');
  });

  it('matches paths to their methods', () => {
    const allowed = routeTable(listOperations(doc));
    expect(allowed('/campaigns')).toEqual(['GET', 'POST']);
    expect(allowed('/campaigns/cmp_1/send')).toEqual(['POST']);
    expect(allowed('/contacts/import/imp_1/errors.csv')).toEqual(['GET']);
    expect(allowed('/contacts/import/imp_1/errorsXcsv')).toBeNull();
    expect(allowed('/campaigns/a/b/c')).toBeNull();
  });

  it('closes every object a JSON request body can hold, in the published contract itself', () => {
    const open: string[] = [];
    const seen = new Set<unknown>();
    const visit = (schema: any, where: string) => {
      if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
      seen.add(schema);
      if (typeof schema.$ref === 'string') return visit(doc.components.schemas[schema.$ref.split('/').pop()], schema.$ref);
      if (schema.properties && schema.additionalProperties === undefined) open.push(where);
      for (const [name, child] of Object.entries(schema.properties ?? {})) visit(child, `${where}.${name}`);
      visit(schema.items, `${where}[]`);
      for (const key of ['allOf', 'anyOf', 'oneOf']) for (const child of schema[key] ?? []) visit(child, where);
    };
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of ['post', 'put', 'patch']) visit(item[method]?.requestBody?.content?.['application/json']?.schema, `${method} ${path}`);
    }
    expect(open).toEqual([]);
    expect(doc.components.schemas.CampaignCreate.additionalProperties).toBe(false);
    // Free-form objects stay open, and so do responses.
    expect(doc.components.schemas.ContactCreate.properties.attributes.additionalProperties).toEqual({});
    expect(doc.components.schemas.Session.additionalProperties).toBeUndefined();
  });

  it('gives the validator no examples, where ajv would take their ids for schema ids', () => {
    const examples = JSON.stringify(forValidator).match(/"examples?":/g) ?? [];
    expect(JSON.stringify(doc).match(/"examples?":/g)?.length).toBeGreaterThan(0);
    expect(examples).toEqual([]);
    expect(forValidator.components.schemas.Contact.properties.email).toEqual(doc.components.schemas.Contact.properties.email);
  });

  it('lets query values carry reserved characters such as @ and :', () => {
    const parameters = forValidator.components.parameters;
    expect(Object.values<any>(parameters).filter((p) => p.in === 'query' && !p.allowReserved)).toEqual([]);
  });

  it('declares 413 and 415 for every operation that takes a body, and 431 for every operation', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
        const op = item[method];
        if (!op) continue;
        const expected = op.requestBody ? ['413', '415', '431'] : ['431'];
        for (const status of expected) if (!op.responses[status]) missing.push(`${method} ${path} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('turns nullable references into an anyOf the validator understands', () => {
    const me = forValidator.components.schemas.Me.properties.user;
    expect(me.anyOf).toEqual([{ enum: [null] }, { $ref: '#/components/schemas/User' }]);
    expect(me.nullable).toBeUndefined();
  });

  it('declares the 26 event types as one discriminated union', () => {
    const event = doc.components.schemas.Event;
    expect(event.discriminator.propertyName).toBe('type');
    expect(Object.keys(event.discriminator.mapping)).toHaveLength(26);
  });
});
