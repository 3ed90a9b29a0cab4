//! What the `#[starweaver::tool]` expansion calls besides the public
//! builders: the return conversions and the blocking runner. Not meant
//! to be called by hand (the facade keeps it under a hidden path).

mod argument;
mod docs;
mod output;

pub use argument::{DeserializeArgument, SchemaArgument};
pub use docs::doc_text;

pub use output::{
    output_of_result, output_of_result_tool_result, output_of_tool_result, output_of_value,
    run_blocking,
};
