use clap as _;
fn main() {}
