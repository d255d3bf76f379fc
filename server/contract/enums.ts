/**
 * A contract enum as a runtime list, for what needs its values (entity enums, SQL checks, input
 * loops): `enumValues<components['schemas']['X']>()([...])` fails to compile unless the list names
 * every member of the enum and nothing else, so the list cannot drift from the contract.
 */
export function enumValues<U extends string>() {
  return <const L extends readonly U[]>(list: L & ([Exclude<U, L[number]>] extends [never] ? unknown : { missing: Exclude<U, L[number]> })): L => list;
}
