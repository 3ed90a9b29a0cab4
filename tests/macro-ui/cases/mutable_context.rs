/// Change the context.
#[starweaver::tool]
fn change(ctx: &mut starweaver::ToolContext) {
    let _ = ctx;
}

fn main() {}
