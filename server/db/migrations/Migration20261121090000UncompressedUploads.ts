import { Migration } from '@mikro-orm/migrations';

/**
 * Uploaded files are kept only until their import has read them. Compressing each 1 MB chunk
 * on the way in (TOAST's default) cost PostgreSQL 1.6 CPU seconds per 100 MB upload, and
 * decompressing it again on the way out, to save disk space for a few seconds.
 */
export class Migration20261121090000UncompressedUploads extends Migration {
  override name = 'Migration20261121090000UncompressedUploads';

  override up(): void {
    this.addSql('alter table contact_import_chunks alter column data set storage external;');
  }
}
