/**
 * The skeleton every error class of the harness shares: a stable `code` (what callers branch on;
 * messages are for people) and a brand, a registered symbol, that marks each instance so
 * `isInstance` recognises one thrown by another installed copy of the same package, where
 * `instanceof` cannot. Each package keeps its own class (its name, its codes, its extra fields)
 * and brand; the brand's key is part of its public contract, so it never changes.
 */
export class CodedError<Code extends string = string> extends Error {
  readonly code: Code;

  constructor(brand: symbol, code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    Object.defineProperty(this, brand, { value: true, enumerable: false });
  }
}

/** Whether `value` carries `brand`: an instance of the class that owns it, from any installed copy. */
export function hasErrorBrand(value: unknown, brand: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}
