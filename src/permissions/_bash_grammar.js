/* @ts-self-types="./_bash_grammar.d.ts" */
// The tree-sitter Bash grammar, compiled from the npm package's wasm. JavaScript because
// TypeScript does not parse `import source` yet; loaded only by `shell.ts`, when a Bash rule
// must be judged.
import source bashGrammar from "tree-sitter-bash/tree-sitter-bash.wasm";

export const BASH_GRAMMAR = bashGrammar;
