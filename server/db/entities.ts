import { Account, Session, User } from '../auth/entities.ts';
import { ApiKey } from '../api-keys/entities.ts';
import { Event } from '../events/entities.ts';
import { Contact } from '../contacts/entities.ts';
import { ContactImport, ContactImportChunk, ContactImportError } from '../imports/entities.ts';
import { Campaign } from '../campaigns/entities.ts';

/** Every table's entity. Each module that owns tables defines their entities beside its store. */
export const entities = [Account, User, Session, ApiKey, Event, Contact, Campaign, ContactImport, ContactImportChunk, ContactImportError] as const;
