/** Path helpers for tests. */
import { fileURLToPath } from "node:url";

/** The path of a file URL. */
export function fromFileUrl(url: URL): string {
  return fileURLToPath(url);
}
