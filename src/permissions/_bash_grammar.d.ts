/** The compiled `tree-sitter.wasm` of web-tree-sitter. */
export declare const TREE_SITTER: WebAssembly.Module;
/** The compiled `tree-sitter-bash.wasm`. */
export declare const BASH_GRAMMAR: WebAssembly.Module;
