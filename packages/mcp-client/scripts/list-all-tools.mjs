// Shared by the capture scripts: pages through `tools/list` with an SDK client to the end.

/** Every tool a connected SDK `Client` lists, following `nextCursor`. */
export async function listAllTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
