/** The audience and transactional pages: their code (loaded lazily), paths and menu entries. */
import type { ComponentType } from 'react';

type Page = () => Promise<{ default: ComponentType<{ params: Record<string, string> }> }>;

export const audiencePages: Record<string, Page> = {
  lists: () => import('./Lists.tsx'),
  list: () => import('./List.tsx'),
  segments: () => import('./Segments.tsx'),
  segment: () => import('./Segment.tsx'),
  fields: () => import('./Fields.tsx'),
  tags: () => import('./Tags.tsx'),
  suppressions: () => import('./Suppressions.tsx'),
  topics: () => import('./Topics.tsx'),
  templates: () => import('./Templates.tsx'),
  template: () => import('./Template.tsx'),
  emails: () => import('./Emails.tsx'),
  email: () => import('./Email.tsx'),
};

export const audienceRoutes: [pattern: string, page: string][] = [
  ['/lists', 'lists'],
  ['/lists/:id', 'list'],
  ['/segments', 'segments'],
  ['/segments/:id', 'segment'],
  ['/fields', 'fields'],
  ['/tags', 'tags'],
  ['/suppressions', 'suppressions'],
  ['/topics', 'topics'],
  ['/templates', 'templates'],
  ['/templates/:id', 'template'],
  ['/emails', 'emails'],
  ['/emails/:id', 'email'],
];

export const audienceNav: [to: string, label: string][] = [
  ['/lists', 'Lists'],
  ['/segments', 'Segments'],
  ['/fields', 'Custom fields'],
  ['/tags', 'Tags'],
  ['/suppressions', 'Suppressions'],
  ['/topics', 'Topics'],
  ['/templates', 'Templates'],
  ['/emails', 'Transactional emails'],
];
