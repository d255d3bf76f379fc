import { describe, expect, it } from 'vitest';
import { listOperations, loadContract, routeTable, validatorDocument } from './contract.ts';

const doc = loadContract();

describe('the contract as the server reads it', () => {
  it('lists every operation with a unique id and knows which are public', () => {
    const ops = listOperations(doc);
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    expect(ops.filter((o) => !o.authenticated).map((o) => o.operationId).sort()).toEqual(['Auth_login', 'Auth_refresh', 'Auth_register']);
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

  it('closes request schemas but leaves free-form objects and responses open', () => {
    const closed = validatorDocument(doc).components.schemas;
    expect(closed.CampaignCreate.additionalProperties).toBe(false);
    expect(closed.Audience.additionalProperties).toBe(false);
    expect(closed.ContactCreate.properties.attributes.additionalProperties).toEqual({});
    expect(closed.Session.additionalProperties).toBeUndefined();
    expect(doc.components.schemas.CampaignCreate.additionalProperties).toBeUndefined();
  });

  it('lets query values carry reserved characters such as @ and :', () => {
    const parameters = validatorDocument(doc).components.parameters;
    expect(Object.values<any>(parameters).filter((p) => p.in === 'query' && !p.allowReserved)).toEqual([]);
  });

  it('turns nullable references into an anyOf the validator understands', () => {
    const me = validatorDocument(doc).components.schemas.Me.properties.user;
    expect(me.anyOf).toEqual([{ enum: [null] }, { $ref: '#/components/schemas/User' }]);
    expect(me.nullable).toBeUndefined();
  });

  it('declares the 26 event types as one discriminated union', () => {
    const event = doc.components.schemas.Event;
    expect(event.discriminator.propertyName).toBe('type');
    expect(Object.keys(event.discriminator.mapping)).toHaveLength(26);
  });
});
