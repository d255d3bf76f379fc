// The `@enumDescriptions` decorator: OpenAPI 3.0 has no place for a doc comment on one enum value,
// so each variant's doc comment goes into `x-enum-descriptions` (openapi-generator's convention,
// in the order of `enum`), where the SDKs and the server's error catalogue read it.
import { getDoc } from "@typespec/compiler";
import { setExtension } from "@typespec/openapi";

function enumDescriptions(context, target) {
  const descriptions = [...target.variants.values()].map((variant) => getDoc(context.program, variant) ?? "");
  setExtension(context.program, target, "x-enum-descriptions", descriptions);
}

export const $decorators = { Sendline: { enumDescriptions } };
