/**
 * The API: one resource, books, in a SQLite database. `createApp()` opens
 * the database (creating and seeding the table on first start) and builds
 * the RestApi; src/server.ts serves it, test/app.test.ts calls it in
 * process with `api.inject()`.
 */
import {
  APIView,
  CharField,
  CursorPagination,
  HyperlinkedIdentityField,
  IntegerField,
  ListAPIView,
  Response,
  RestApi,
  RetrieveAPIView,
  Serializer,
  URLPathVersioning,
  apiReferenceView,
  openApiView,
  path,
  reverse,
  type Request,
} from 'eventide/rest';
import { SqlQueryset, createSqliteKysely } from 'eventide/sql';
import type { Kysely } from 'kysely';

/** A row of the `book` table. */
export interface Book {
  id: number;
  title: string;
  author: string;
  year: number;
}

/** The database as Kysely sees it: one table. */
export interface Database {
  book: Book;
}

/** What a new database starts with. */
const SEED: readonly Omit<Book, 'id'>[] = [
  { title: 'Pride and Prejudice', author: 'Jane Austen', year: 1813 },
  { title: 'Frankenstein', author: 'Mary Shelley', year: 1818 },
  { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 },
  { title: 'Madame Bovary', author: 'Gustave Flaubert', year: 1857 },
  { title: 'Great Expectations', author: 'Charles Dickens', year: 1861 },
  { title: 'War and Peace', author: 'Leo Tolstoy', year: 1869 },
  { title: 'Middlemarch', author: 'George Eliot', year: 1872 },
  { title: 'The Brothers Karamazov', author: 'Fyodor Dostoevsky', year: 1880 },
  { title: 'The Portrait of a Lady', author: 'Henry James', year: 1881 },
  { title: 'Effi Briest', author: 'Theodor Fontane', year: 1895 },
  { title: 'Buddenbrooks', author: 'Thomas Mann', year: 1901 },
  { title: 'Ulysses', author: 'James Joyce', year: 1922 },
];

/** Opens (or creates) the database; a new table gets the seed rows. */
export async function openDatabase(filename: string): Promise<Kysely<Database>> {
  const db = createSqliteKysely<Database>(filename);
  await db.schema
    .createTable('book')
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('year', 'integer', (c) => c.notNull())
    .execute();
  const first = await db.selectFrom('book').select('id').limit(1).executeTakeFirst();
  if (first === undefined)
    await db
      .insertInto('book')
      .values(SEED.map((b, i) => ({ id: i + 1, ...b })))
      .execute();
  return db;
}

/** A book as the API shows it. */
export class BookSerializer extends Serializer<Book> {
  static override fields = {
    url: new HyperlinkedIdentityField({ viewName: 'book-detail' }),
    id: new IntegerField({ readOnly: true }),
    title: new CharField({ maxLength: 200 }),
    author: new CharField({ maxLength: 100 }),
    year: new IntegerField(),
  };
}

/** Five books per page, by id; `next` and `previous` are opaque cursors. */
class BookCursor extends CursorPagination {
  override pageSize = 5;
  override ordering = 'id';
}

/** The app: its API, and how to close its database. */
export interface App {
  readonly api: RestApi;
  close(): Promise<void>;
}

/**
 * Builds the API over the database at `filename` (`':memory:'` for a
 * fresh one). `allowedHosts`: the host names clients may use (links are
 * built from the Host header, so any other is refused with 400).
 */
export async function createApp(
  filename: string,
  allowedHosts: readonly string[] = ['localhost', '127.0.0.1', '[::1]'],
): Promise<App> {
  const db = await openDatabase(filename);
  // Typed by the Database interface: the table and each field must be its columns.
  const books = new SqlQueryset({
    db,
    table: 'book',
    fields: {
      id: { type: 'integer', unique: true },
      title: { type: 'text' },
      author: { type: 'text' },
      year: { type: 'integer' },
    },
    dialect: 'sqlite',
  });

  // <Book>: the queryset's rows and the serializer's must agree, checked at compile time.
  class BookList extends ListAPIView<Book> {
    override description = 'The books, five per page, by id: follow `next` for the following page.';
    override queryset = books;
    override serializerClass = BookSerializer;
    override paginationClass = BookCursor;
    override versioningClass = URLPathVersioning;
  }
  class BookDetail extends RetrieveAPIView<Book> {
    override description = 'One book, by id.';
    override queryset = books;
    override serializerClass = BookSerializer;
    override versioningClass = URLPathVersioning;
  }
  class Root extends APIView {
    override description = 'Where everything is.';
    override get(request: Request): Response {
      return new Response({
        books: reverse('book-list', { request, kwargs: { version: 'v1' } }),
        openapi: reverse('openapi', { request }),
        docs: reverse('docs', { request }),
      });
    }
  }

  const docs = apiReferenceView({ title: 'Books', openapiUrl: '/openapi/v1.json' });
  const api = new RestApi({
    urlpatterns: [
      path('', Root.asView(), { name: 'root' }),
      path('<str:version>/books/', BookList.asView(), { name: 'book-list' }),
      path('<str:version>/books/<int:pk>/', BookDetail.asView(), { name: 'book-detail' }),
      path('openapi/v1.json', openApiView({ title: 'Books', version: 'v1' }), { name: 'openapi' }),
      path('docs/', docs, { name: 'docs' }),
      path('docs/<path:page>', docs),
    ],
    settings: {
      // The versions the URL path may name (`/v1/books/`): any other is a 404.
      ALLOWED_VERSIONS: ['v1'],
      ALLOWED_HOSTS: [...allowedHosts],
    },
  });
  return { api, close: () => db.destroy() };
}
