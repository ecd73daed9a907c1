/** The RFC 8288 Link header pointing at the page after `cursor`, keeping the caller's filter and page size. */
export function nextPageLink(recipient: string, query: { unread: boolean; limit: number }, cursor: string): string {
  const search = new URLSearchParams();
  if (query.unread) search.set('unread', 'true');
  search.set('limit', String(query.limit));
  search.set('before', cursor);
  return `</notifications/${encodeURIComponent(recipient)}?${search.toString()}>; rel="next"`;
}
