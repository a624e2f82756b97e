// Moved to the SPI layer (driver/validate-schema.ts); this re-export keeps driver configs that
// still name the old home compiling until their import lines move too.
export * from "../driver/validate-schema.js";
