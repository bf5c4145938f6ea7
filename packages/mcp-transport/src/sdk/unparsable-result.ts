/** The message of a failure the SDK's own parsing rejected (a result or response that is not an object). */
export const UNPARSABLE_RESULT_MESSAGE = "the server sent a result that is not a JSON object";
