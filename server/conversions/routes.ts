import { handlers } from '../http/operations.ts';
import type { AttributionService } from './service.ts';

export const conversionHandlers = handlers<{ attribution: AttributionService }>()({
  Conversions_create: async ({ principal, body, services }) => {
    const { created, conversion } = await services.attribution.createConversion(principal.accountId, body);
    return created ? { status: 201, body: conversion } : { status: 200, body: conversion };
  },
  Conversions_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.attribution.listConversions(principal.accountId, query, query.limit ?? 50, query.cursor),
  }),
  Payments_create: async ({ principal, body, services }) => {
    const { created, payment } = await services.attribution.createPayment(principal.accountId, body);
    return created ? { status: 201, body: payment } : { status: 200, body: payment };
  },
  Payments_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.attribution.listPayments(principal.accountId, query, query.limit ?? 50, query.cursor),
  }),
});
