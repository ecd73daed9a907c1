/** Smallest valid-looking files of each supported kind, for attachment tests. */
export const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);
export const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32, 2)]);
export const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(16, 3)]);
export const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(16)]);
export const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n');
export const TEXT = Buffer.from('disk /dev/sda1 is 91% full\n');
export const EXECUTABLE = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(32)]);

/** A PNG of exactly `bytes` bytes. */
export function pngOfSize(bytes: number): Buffer {
  const file = Buffer.alloc(bytes, 0);
  PNG.copy(file, 0, 0, 8);
  return file;
}
