import { importCsv, type ContactImport, type CsvSource, type ImportCsvParams } from './imports.ts';
import { resources, type Resources } from './resources.ts';
import { Transport, type Answer, type Args, type ClientOptions, type OperationId, type RequestOptions, type Result } from './transport.ts';
import { waitUntilFinal, type WaitOptions } from './wait.ts';

/**
 * The Sendline API client: `new Sendline({ apiKey, baseUrl })`, then one namespace per resource
 * (`sendline.contacts.create({ email })`, `for await (const c of sendline.contacts.list())`).
 */
export class Sendline {
  readonly #transport: Transport;

  readonly analytics: Resources['analytics'];
  readonly apiKeys: Resources['apiKeys'];
  readonly auth: Resources['auth'];
  readonly campaigns: Resources['campaigns'] & {
    /** Polls the campaign until it is `completed`, `cancelled` or `failed`, and answers it. */
    wait(id: string, wait?: WaitOptions, options?: RequestOptions): Promise<Result<'Campaigns_get'>>;
  };
  readonly contactImports: Resources['contactImports'] & {
    /** Polls the import until it is `completed` or `failed`, and answers it. */
    wait(id: string, wait?: WaitOptions, options?: RequestOptions): Promise<ContactImport>;
  };
  readonly contacts: Resources['contacts'] & {
    /** Imports a CSV (multipart upload, streamed from `{ path }`); answers the queued import. */
    importCsv(source: CsvSource, params?: ImportCsvParams, options?: RequestOptions): Promise<ContactImport>;
  };
  readonly conversions: Resources['conversions'];
  readonly emails: Resources['emails'];
  readonly events: Resources['events'];
  readonly payments: Resources['payments'];
  readonly tracking: Resources['tracking'];
  readonly users: Resources['users'];
  readonly webhooks: Resources['webhooks'];
  readonly customFields: Resources['customFields'];
  readonly segments: Resources['segments'];
  readonly tags: Resources['tags'];
  readonly lists: Resources['lists'];
  readonly contactLists: Resources['contactLists'];
  readonly publicLists: Resources['publicLists'];
  readonly templates: Resources['templates'];
  readonly suppressions: Resources['suppressions'];
  readonly topics: Resources['topics'];
  readonly contactTopics: Resources['contactTopics'];
  readonly contactExports: Resources['contactExports'] & {
    /** Polls the export until it is `completed` or `failed`, and answers it. */
    wait(id: string, wait?: WaitOptions, options?: RequestOptions): Promise<Result<'ContactExports_get'>>;
  };
  readonly accounts: Resources['accounts'];
  readonly domains: Resources['domains'];
  readonly automations: Resources['automations'];
  readonly contactAutomations: Resources['contactAutomations'];
  readonly contactEvents: Resources['contactEvents'];

  constructor(options: ClientOptions = {}) {
    const transport = new Transport(options);
    this.#transport = transport;
    const all = resources(transport);
    this.analytics = all.analytics;
    this.apiKeys = all.apiKeys;
    this.auth = all.auth;
    this.campaigns = { ...all.campaigns, wait: (id, wait, callOptions) => waitUntilFinal(transport, 'Campaigns_get', id, wait, callOptions) };
    this.contactImports = { ...all.contactImports, wait: (id, wait, callOptions) => waitUntilFinal(transport, 'ContactImports_get', id, wait, callOptions) };
    this.contacts = { ...all.contacts, importCsv: (source, params, callOptions) => importCsv(transport, source, params, callOptions) };
    this.conversions = all.conversions;
    this.emails = all.emails;
    this.events = all.events;
    this.payments = all.payments;
    this.tracking = all.tracking;
    this.users = all.users;
    this.webhooks = all.webhooks;
    this.customFields = all.customFields;
    this.segments = all.segments;
    this.tags = all.tags;
    this.lists = all.lists;
    this.contactLists = all.contactLists;
    this.publicLists = all.publicLists;
    this.templates = all.templates;
    this.suppressions = all.suppressions;
    this.topics = all.topics;
    this.contactTopics = all.contactTopics;
    this.contactExports = { ...all.contactExports, wait: (id, wait, callOptions) => waitUntilFinal(transport, 'ContactExports_get', id, wait, callOptions) };
    this.accounts = all.accounts;
    this.domains = all.domains;
    this.automations = all.automations;
    this.contactAutomations = all.contactAutomations;
    this.contactEvents = all.contactEvents;
  }

  /** The normalised base URL requests go to (`https://host/api/v1`). */
  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  /** Logs in with email and password and answers a client that uses the session's token. */
  static async login(options: Omit<ClientOptions, 'apiKey'> & { email: string; password: string }): Promise<Sendline> {
    const { email, password, ...clientOptions } = options;
    const anonymous = new Transport({ ...clientOptions, anonymous: true });
    const { data } = await anonymous.request('Auth_login', { body: { email, password } });
    return new Sendline({ ...clientOptions, apiKey: data.token });
  }

  /** Any operation by its contract id, with its status and headers: the layer the namespaces are built on. */
  request<O extends OperationId>(id: O, args: Args<O>, options?: RequestOptions): Promise<Answer<O>> {
    return this.#transport.request(id, args, options);
  }
}
