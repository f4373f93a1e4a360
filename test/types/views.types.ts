/**
 * Type tests of views: asView()/asViewSet() take only the view's
 * attributes with their types, and a generic view's queryset and
 * serializerClass agree on the row type. Compiled by
 * test/types/types.test.ts, never run.
 */
import {
  APIView,
  ListAPIView,
  PageNumberPagination,
  ReadOnlyModelViewSet,
  RetrieveAPIView,
  Serializer,
  URLPathVersioning,
  type Queryset,
} from '../../src/rest/index.js';
import { given } from './expect.js';

interface Item {
  id: number;
  name: string;
}
interface Order {
  total: number;
  placed: Date;
}
const items = given<Queryset<Item>>();
const orders = given<Queryset<Order>>();
class ItemSerializer extends Serializer<Item> {}
class OrderSerializer extends Serializer<Order> {}

class ItemList extends ListAPIView<Item> {
  override queryset = items;
  override serializerClass = ItemSerializer;
}
export class WrongSerializer extends ListAPIView<Item> {
  override queryset = items;
  // @ts-expect-error a serializer of other rows
  override serializerClass = OrderSerializer;
}
export class WrongQueryset extends RetrieveAPIView<Item> {
  // @ts-expect-error a queryset of other rows
  override queryset = orders;
  override serializerClass = ItemSerializer;
}
// Without a row type any pairing compiles, as before.
export class Untyped extends ListAPIView {
  override queryset = orders;
  override serializerClass = ItemSerializer;
}
export async function rows(view: ItemList): Promise<Item> {
  return view.getObject(); // typed by the view's rows
}

ItemList.asView({
  paginationClass: PageNumberPagination,
  description: 'All items',
  versioningClass: URLPathVersioning,
});
ItemList.asView({ paginationClass: null });
// @ts-expect-error paginationClass takes a pagination class
ItemList.asView({ paginationClass: 42 });
// @ts-expect-error no such attribute
ItemList.asView({ pagination: PageNumberPagination });
// @ts-expect-error methods are not attributes
ItemList.asView({ get: () => null });
// @ts-expect-error getters are not attributes
ItemList.asView({ settings: {} });
// @ts-expect-error description is a string
APIView.asView({ description: 1 });

class ItemViewSet extends ReadOnlyModelViewSet<Item> {
  override queryset = items;
  override serializerClass = ItemSerializer;
}
ItemViewSet.asViewSet({ get: 'list' }, { basename: 'item', detail: false, suffix: 'List' });
// @ts-expect-error basename is a string
ItemViewSet.asViewSet({ get: 'list' }, { basename: 1 });
