/**
 * Finds full (`[text][label]`) and collapsed (`[label][]`) references whose label has no definition.
 * CommonMark turns those into plain text, so the normal parse cannot see them. A second micromark
 * parse is run in which every label counts as defined; the references it yields whose label is not
 * really defined are the broken ones. Shortcut references (`[label]`) are left alone: brackets in
 * prose are too common to call them links.
 */
import { parse, postprocess, preprocess } from "micromark";
import { normalizeIdentifier } from "micromark-util-normalize-identifier";
import { extensionsFor } from "./syntax.js";

/** [start, end) source offsets. */
export type OffsetRange = [number, number];

export interface UndefinedReference {
  /** The label as written. */
  label: string;
  line: number;
  column: number;
}

/** Every label is "defined" for this parse, so that references form whatever their label. */
class EveryLabelDefined extends Array<string> {
  override includes(): boolean {
    return true;
  }
}

interface OpenReference {
  start: number;
  end: number;
  line: number;
  column: number;
  labelText?: string;
  referenceString?: string;
  isReference: boolean;
}

/**
 * `defined` holds the document's real definition identifiers (normalized, lower case); `realLinks` are
 * the offset ranges of links, references and definitions of the normal parse, which a reference from
 * the permissive parse must not overlap (it would be an artefact of treating every label as defined).
 */
export function findUndefinedReferences(
  source: string,
  defined: ReadonlySet<string>,
  realLinks: readonly OffsetRange[],
  extensions = extensionsFor(source),
): UndefinedReference[] {
  const parser = parse({ extensions });
  parser.defined = new EveryLabelDefined();
  const events = postprocess(parser.document().write(preprocess()(source, undefined, true)));
  const found: UndefinedReference[] = [];
  const open: OpenReference[] = [];
  for (const [kind, token, context] of events) {
    const top = open[open.length - 1];
    if (kind === "enter") {
      if (token.type === "link" || token.type === "image") {
        open.push({
          start: token.start.offset,
          end: token.end.offset,
          line: token.start.line,
          column: token.start.column,
          isReference: false,
        });
      } else if (top && token.type === "labelText" && top.labelText === undefined) {
        top.labelText = context.sliceSerialize(token);
      } else if (top && token.type === "reference") {
        top.isReference = true;
      } else if (top && token.type === "referenceString") {
        top.referenceString = context.sliceSerialize(token);
      }
    } else if (token.type === "link" || token.type === "image") {
      const ref = open.pop();
      if (!ref?.isReference) continue;
      const label = ref.referenceString ?? ref.labelText ?? "";
      if (defined.has(normalizeIdentifier(label).toLowerCase())) continue;
      if (realLinks.some(([s, e]) => s < ref.end && ref.start < e)) continue;
      found.push({ label, line: ref.line, column: ref.column });
    }
  }
  return found;
}
