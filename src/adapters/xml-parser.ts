/**
 * fast-xml-parser, required on first use: the few tools that read XML reports (JUnit) load its single
 * CommonJS file then, instead of every server loading its 11 ES modules with the tools at start.
 */
import { createRequire } from "node:module";
import type { X2jOptions, XMLParser } from "fast-xml-parser";

type FastXmlParser = typeof import("fast-xml-parser");

let loaded: FastXmlParser | undefined;

export function xmlParser(options: X2jOptions): XMLParser {
  loaded ??= createRequire(import.meta.url)("fast-xml-parser") as FastXmlParser;
  return new loaded.XMLParser(options);
}
