export { createLineChildren, type LineChild, type LineChildren } from "./line-children.js";
