/** The public pages of lists on PUBLIC_URL, answered by `pages.ts` before Express. */
export const CONFIRM_PREFIX = '/l/confirm/';
export const THANKS_PREFIX = '/l/subscribed/';

/** Where a double opt-in link points: a page that asks, then confirms on POST. */
export const confirmationPath = (token: string) => `${CONFIRM_PREFIX}${token}`;

/** Where a form posted by a browser is sent on to: a page that depends on the list alone. */
export const thankYouPath = (publicId: string) => `${THANKS_PREFIX}${encodeURIComponent(publicId)}`;
