/** A body reader settles from several events (data, end, close, a parser's callbacks): only the first call runs. */
export function settleOnce(settle: (error?: unknown) => void): (error?: unknown) => void {
  let settled = false;
  return (error) => {
    if (settled) return;
    settled = true;
    settle(error);
  };
}
