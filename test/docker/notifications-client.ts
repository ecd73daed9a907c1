/** The header that carries the API key, as the README shows it to curl. */
export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** Creates `count` notifications with the key, `concurrency` at a time; answers their ids in order of acknowledgement. */
export async function createMany(base: string, key: string, count: number, concurrency = 1): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const res = await fetch(`${base}/notifications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(key) },
        body: JSON.stringify({ recipient: 'docker', title: `n${n}`, message: `notification ${n}` }),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      ids.push(((await res.json()) as { id: string }).id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

/** Every id of the recipient `docker`, newest first, through the cursor pages. */
export async function listAllIds(base: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const cursor = ids.length > 0 ? `&before=${ids.at(-1)}` : '';
    const res = await fetch(`${base}/notifications/docker?limit=500${cursor}`, { headers: bearer(key) });
    if (res.status !== 200) throw new Error(`list answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { id: string }[];
    if (page.length === 0) return ids;
    ids.push(...page.map((n) => n.id));
  }
}
