// Where the site's files are, seen from the worker's modules (one folder below the page).
export const SITE = new URL("../", import.meta.url).href;
export const BOOT_URL = new URL("boot.json", SITE);
