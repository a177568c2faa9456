"""One module per ``arena`` subcommand; each turns parsed arguments into output."""
