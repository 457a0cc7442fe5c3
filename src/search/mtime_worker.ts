/**
 * Worker thread of {@link ../file_index.ts}'s `MtimeLoader`: stats the paths
 * it is sent and answers their mtimes (ms; 0 when a path cannot be statted),
 * so that a big walk's stats run on the second core while the walk goes on.
 *
 * @module
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import { mtimeOf } from "./stat_claims.ts";

/** A batch to stat. */
interface Batch {
  id: number;
  paths: string[];
}

self.onmessage = (e: MessageEvent<Batch>) => {
  const { id, paths } = e.data;
  const times = new Float64Array(paths.length);
  for (let i = 0; i < paths.length; i++) times[i] = mtimeOf(paths[i]);
  self.postMessage({ id, times }, [times.buffer]);
};
