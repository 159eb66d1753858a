"""``fitproof mcp``: the checker as tools an agent calls, over the Model Context Protocol.

- ``protocol``: JSON-RPC 2.0 and the MCP lifecycle as a function from one message to its
  answer (``Session.handle``), and from one line to the line that answers it.
- ``tools``: the four tools (``check``, ``count_tokens``, ``trim_messages``, ``verify_claim``),
  their schemas, and what each returns.
- ``stdio``: the server on standard input and output, newline-delimited, one message a line.

Standard library only, like the rest of the package; nothing here is imported by the package
itself or by the other commands, and nothing here imports the command line (``cli/``): its
``run`` hands ``stdio.run`` the tokenizers of ``--tokenizer-file``, loaded.
"""
