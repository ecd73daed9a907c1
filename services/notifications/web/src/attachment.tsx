import { type ApiClient, ErrorNote, toErrorBody, type ErrorBody } from '@homeops/web-kit';
import { useEffect, useState } from 'preact/hooks';
import { downloadFilename } from '../../src/domain/file-names.js';

// Shown inline; anything else (an SVG too) is offered as a download.
const INLINE_IMAGE = /^image\/(png|jpeg|gif|webp|avif|bmp)$/i;

function sizeText(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The attachment, fetched with the API key as a header (so never by URL): an image inline, else a download. */
export function Attachment({ client, id, meta }: { client: ApiClient; id: string; meta: { filename: string; contentType: string; size: number } }) {
  const [url, setUrl] = useState<string | null>(null);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const path = `/notifications/single/${id}/attachment`;
  const inline = INLINE_IMAGE.test(meta.contentType);
  // The name the server's Content-Disposition gives, by the same rule: a blob link would otherwise save the raw name.
  const filename = downloadFilename(meta.filename, meta.contentType);

  useEffect(() => {
    if (!inline) return;
    let objectUrl: string | null = null;
    let live = true;
    client.blob(path).then(
      (blob) => {
        objectUrl = URL.createObjectURL(blob);
        if (live) setUrl(objectUrl);
      },
      (error: unknown) => live && setProblem(toErrorBody(error)),
    );
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [client, path, inline]);

  const download = async () => {
    try {
      const href = URL.createObjectURL(await client.blob(path));
      const link = Object.assign(document.createElement('a'), { href, download: filename });
      link.click();
      setTimeout(() => URL.revokeObjectURL(href), 10_000);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
  };

  return (
    <div class="attachment">
      {inline ? (
        url ? (
          <img src={url} alt={meta.filename} />
        ) : (
          <span class="muted">Loading {meta.filename}…</span>
        )
      ) : (
        <button type="button" onClick={download}>
          Download {filename} ({sizeText(meta.size)})
        </button>
      )}
      <ErrorNote problem={problem} />
    </div>
  );
}
