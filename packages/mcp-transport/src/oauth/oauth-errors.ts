import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link OAuthFlowError}. */
export const OAUTH_ERROR_CODES = {
  /** The server needs a user to authorize and nobody can be asked (no terminal): run the login command. */
  loginRequired: "login_required",
  /** Discovery returned metadata we refuse (plain http, a script or file URL, an issuer that does not match). */
  hostileMetadata: "hostile_metadata",
  /** The browser step failed: a wrong or missing `state`, an error from the authorization server, a timeout. */
  authorizationFailed: "authorization_failed",
  /** The authorization response's `iss` is not the issuer the request went to, or is missing where promised (RFC 9207). */
  issuerMismatch: "issuer_mismatch",
} as const;

/** A code of {@link OAUTH_ERROR_CODES}. */
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[keyof typeof OAUTH_ERROR_CODES];

const MARKER = Symbol.for("@agent/mcp-transport/OAuthFlowError");

/**
 * Why an OAuth flow stopped. Messages carry no credential (no token, code, secret or query string).
 * The name `OAuthLoginRequiredError` for `login_required` is what the transports fold into a failed
 * request with `data: { httpStatus: 401, loginRequired: true }`.
 */
export class OAuthFlowError extends CodedError<OAuthErrorCode> {
  constructor(code: OAuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(MARKER, code, message, options);
    this.name = code === OAUTH_ERROR_CODES.loginRequired ? "OAuthLoginRequiredError" : "OAuthFlowError";
  }

  /** Recognizes the error across two installed copies of this package. */
  static isInstance(value: unknown): value is OAuthFlowError {
    return hasErrorBrand(value, MARKER);
  }
}
