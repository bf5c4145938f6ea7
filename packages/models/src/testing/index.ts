export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedStep,
  textTurn,
  toolCallTurn,
} from "./scripted-model.js";
