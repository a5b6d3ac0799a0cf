//! The engine recurses once per level of a program's syntax tree (the parser, the
//! conversion, the printer, the rewrites). wasm-ld gives a module 1 MiB of stack,
//! which a generated sum of about 800 terms used up ("memory access out of bounds");
//! CPython compiles nesting about twice as deep. 16 MiB of the linear memory is stack.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=-zstack-size=16777216");
    }
}
