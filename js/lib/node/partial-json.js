// Node: the module is loaded on import (../node.js), then the portable code.
import "../node.js";

export * from "../partial-json.js";
