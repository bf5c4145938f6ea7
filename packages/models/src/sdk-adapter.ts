/**
 * What both SDK adapters share around their wire mapping: the SDK loaded once, on the first request;
 * a signal aborted before the call sends nothing; a plain call's SDK errors folded into failures.
 */
import type { ResolvedAdapterOptions } from "./adapter-options.js";
import type { ModelClient, ModelRequest, ModelResult } from "./model-client.js";
import {
  cancelledBeforeSend,
  type FailureContext,
  failureContextFor,
  failureFromSdkError,
  type SdkErrorClasses,
} from "./sdk-failure.js";

/** One request, with the loaded client and what its failures are built from. */
export interface SdkCall<Client> {
  client: Client;
  errors: SdkErrorClasses;
  request: ModelRequest;
  context: FailureContext;
}

/** The provider-specific parts of an adapter. */
export interface SdkAdapterSpec<Client> {
  provider: string;
  options: ResolvedAdapterOptions;
  /** The URL each request is sent to, named by every failure. */
  endpoint: string;
  /** Imports the SDK and builds its client; called once, on the first request. */
  load(): Promise<{ client: Client; errors: SdkErrorClasses }>;
  /** A plain turn; an SDK error it throws becomes a failure. */
  plain(call: SdkCall<Client>): Promise<ModelResult>;
  /** A streamed turn; it folds its own failures (an error of `onText` propagates as is). */
  stream(call: SdkCall<Client>, onText: (delta: string) => void): Promise<ModelResult>;
}

/** Builds a {@link ModelClient} from the provider-specific parts. */
export function createSdkAdapter<Client>(spec: SdkAdapterSpec<Client>): ModelClient {
  // Importing the SDKs costs ~250 ms of CPU together; a CLI that merely can run an agent should not
  // pay that on every command, so each adapter loads its SDK on its first request.
  let loaded: Promise<{ client: Client; errors: SdkErrorClasses }> | undefined;
  return {
    provider: spec.provider,
    model: spec.options.model,
    async createTurn(request) {
      const context = failureContextFor(spec.provider, spec.options, request.signal, spec.endpoint);
      if (request.signal.aborted) return cancelledBeforeSend(context);
      loaded ??= spec.load();
      const { client, errors } = await loaded;
      const call: SdkCall<Client> = { client, errors, request, context };
      if (request.onText !== undefined) return spec.stream(call, request.onText);
      try {
        return await spec.plain(call);
      } catch (error) {
        return failureFromSdkError(error, errors, context);
      }
    },
  };
}
