/**
 * The UTF-8 byte-order mark. Excel opens a CSV without it in the system's legacy code page
 * ("GÃ¶rlitzer"); files the console hands to people start with it, text served to scripts
 * (/v1, the batch results without `bom=1`) does not.
 */
export const UTF8_BOM = "\uFEFF";
