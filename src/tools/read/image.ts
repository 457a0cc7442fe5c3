/**
 * Image sniffing for Read: media type from magic bytes, and width/height
 * from the header where that is cheap (PNG, GIF, JPEG, WebP).
 *
 * @module
 */

/** What the header says about an image. */
export interface ImageInfo {
  /** Media type from the magic bytes. */
  mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  /** Width in pixels, when the header gives it. */
  width?: number;
  /** Height in pixels, when the header gives it. */
  height?: number;
}

/** Extensions Read returns as images. */
export const IMAGE_EXTENSIONS: readonly string[] = ["png", "jpg", "jpeg", "gif", "webp"];

/**
 * Sniffs an image; undefined when the bytes are none of the four formats.
 *
 * @example
 * ```ts
 * import { sniffImage } from "./image.ts";
 * const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 2, 0, 3, 0]);
 * const info = sniffImage(gif);
 * console.assert(info?.mediaType === "image/gif" && info.width === 2 && info.height === 3);
 * ```
 */
export function sniffImage(b: Uint8Array): ImageInfo | undefined {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const ascii = (at: number, len: number) => String.fromCharCode(...b.subarray(at, at + len));
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 3) === "PNG" && ascii(12, 4) === "IHDR") {
    return { mediaType: "image/png", width: dv.getUint32(16), height: dv.getUint32(20) };
  }
  if (b.length >= 10 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) {
    return { mediaType: "image/gif", width: dv.getUint16(6, true), height: dv.getUint16(8, true) };
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) {
    return { mediaType: "image/jpeg", ...jpegSize(b, dv) };
  }
  if (b.length >= 16 && ascii(0, 4) === "RIFF" && ascii(8, 4) === "WEBP") {
    return { mediaType: "image/webp", ...webpSize(b, dv, ascii(12, 4)) };
  }
  return undefined;
}

function jpegSize(b: Uint8Array, dv: DataView): { width?: number; height?: number } {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return {};
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    const len = dv.getUint16(i + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: dv.getUint16(i + 5), width: dv.getUint16(i + 7) };
    }
    i += 2 + len;
  }
  return {};
}

function webpSize(b: Uint8Array, dv: DataView, chunk: string): { width?: number; height?: number } {
  if (chunk === "VP8X" && b.length >= 30) {
    const w = 1 + (b[24] | (b[25] << 8) | (b[26] << 16));
    const h = 1 + (b[27] | (b[28] << 8) | (b[29] << 16));
    return { width: w, height: h };
  }
  if (chunk === "VP8 " && b.length >= 30) {
    return { width: dv.getUint16(26, true) & 0x3fff, height: dv.getUint16(28, true) & 0x3fff };
  }
  if (chunk === "VP8L" && b.length >= 25) {
    const bits = dv.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return {};
}

/**
 * The format an image's magic bytes claim, even when the rest does not follow
 * (a PNG signature alone); undefined when they claim none of the four.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { claimedImageFormat, sniffImage } from "./image.ts";
 * const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
 * assert.equal(claimedImageFormat(signature), "PNG");
 * assert.equal(sniffImage(signature), undefined);
 * ```
 */
export function claimedImageFormat(b: Uint8Array): "PNG" | "JPEG" | "GIF" | "WebP" | undefined {
  const ascii = (at: number, len: number) => String.fromCharCode(...b.subarray(at, at + len));
  if (b[0] === 0x89 && ascii(1, 3) === "PNG") return "PNG";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "JPEG";
  if (ascii(0, 4) === "GIF8") return "GIF";
  if (ascii(0, 4) === "RIFF" && ascii(8, 4) === "WEBP") return "WebP";
  return undefined;
}
