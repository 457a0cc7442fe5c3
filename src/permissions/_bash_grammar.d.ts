/** The compiled `tree-sitter-bash.wasm`. */
export declare const BASH_GRAMMAR: WebAssembly.Module;
