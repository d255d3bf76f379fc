import { useQuery } from '@tanstack/react-query';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, formatDate } from '../ui.tsx';
import { Pager, useCursors } from './kit.tsx';

export default function Segments() {
  const paging = useCursors('');
  const segments = useQuery({
    queryKey: ['segments', paging.cursor],
    queryFn: () =>
      api()
        .segments.list({ limit: 50, ...(paging.cursor ? { cursor: paging.cursor } : {}) })
        .firstPage(),
  });
  return (
    <>
      <PageHeader title="Segments">
        <Link to="/segments/new" className="button primary">
          New segment
        </Link>
      </PageHeader>
      <ErrorMessage error={segments.error} retry={() => void segments.refetch()} />
      {segments.isPending ? (
        <Loading />
      ) : !segments.data?.data.length ? (
        <Empty title="No segments yet">
          <p>
            A segment is a set of rules on contacts’ data and engagement, worked out whenever it is used. <Link to="/segments/new">Build the first one</Link>.
          </p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Segments</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Changed</th>
                </tr>
              </thead>
              <tbody>
                {segments.data.data.map((segment) => (
                  <tr key={segment.id}>
                    <td>
                      <Link to={`/segments/${segment.id}`}>{segment.name}</Link>
                    </td>
                    <td>{segment.description}</td>
                    <td>{formatDate(segment.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} nextCursor={segments.data.next_cursor} />
        </>
      )}
    </>
  );
}
