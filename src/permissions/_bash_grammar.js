/* @ts-self-types="./_bash_grammar.d.ts" */
// tree-sitter and its Bash grammar, compiled from the npm packages' wasm as module imports, so
// loading them reads no file (no read permission needed). JavaScript because TypeScript does not
// parse `import source` yet. Loaded only by `shell.ts`, when a Bash rule must be judged.
import source treeSitter from "web-tree-sitter/tree-sitter.wasm";
import source bashGrammar from "tree-sitter-bash/tree-sitter-bash.wasm";

export const TREE_SITTER = treeSitter;
export const BASH_GRAMMAR = bashGrammar;
