import type { components } from '../../generated/openapi.d.ts';
import { enumValues } from '../contract/enums.ts';

export type SegmentRule = components['schemas']['SegmentRule'];
export type SegmentOperator = components['schemas']['SegmentOperator'];
export type EngagementKind = components['schemas']['EngagementKind'];

export const SEGMENT_OPERATORS = enumValues<SegmentOperator>()([
  'equals',
  'not_equals',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'greater_than',
  'less_than',
  'between',
  'is_set',
  'is_not_set',
  'before',
  'after',
  'within_last_days',
]);

/** Groups nested in groups, the outermost one counted. */
export const MAX_DEPTH = 5;
/** Conditions in one rule tree. */
export const MAX_CONDITIONS = 100;
/** Values of one `in` or `not_in`. */
export const MAX_LIST_VALUES = 1000;
export const MAX_TEXT_VALUE = 1000;
export const MAX_SEGMENTS = 500;
