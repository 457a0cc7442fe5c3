/**
 * Zod's schema type as Paddock's signatures name it.
 *
 * Why an alias: `deno doc --lint` reports a type from an npm package as a
 * private type (npm declarations live in a `file:` cache, so Deno's exemption
 * for cross-package types, denoland/deno#27364, does not reach them), and
 * re-exporting zod's type would pull zod's internals into the lint.
 * `@internal` tells the lint it is documented elsewhere: in zod. Nothing here
 * is exported from an entry point.
 *
 * @module
 */
import type { z } from "zod";

/**
 * Any Zod schema whose output is `T` (`z.ZodType<T>`), such as a
 * `z.strictObject({...})`.
 *
 * @internal
 */
export type ZodType<T = unknown> = z.ZodType<T>;
