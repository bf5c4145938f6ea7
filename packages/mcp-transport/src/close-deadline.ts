// How the close deadlines nest, in one place. Each layer's close() is bounded by the layer inside it
// plus a fixed margin, so the innermost bound (the one that kills a server process) fires first and an
// outer one only catches an inner layer that broke its own bound. The table of deadlines is in the
// mcp-client README ("Deadlines").

/**
 * What a layer's close waits beyond the close bound of the layer it wraps: room for its own steps
 * after the inner close returns, so that it never gives up on an inner close still within its bound.
 */
export const CLOSE_MARGIN_MS = 500;

/** The close bound of a layer around one whose `close()` takes at most `innerMs` milliseconds. */
export function closeBoundAround(innerMs: number): number {
  return innerMs + CLOSE_MARGIN_MS;
}
