mod engine;
fn main() {}
