// Where the site's files are, seen from the worker's modules (one folder below the page).
export const SITE = new URL("../", import.meta.url).href;
export const BOOT_URL = new URL("boot.json", SITE);
// Pyodide's folder, as boot.json names it: written here by the site's builder (bundle.py), so
// that Pyodide's downloads start as soon as the worker runs, without waiting for boot.json or
// the loader. null (this file as it is in web/): they start once the loader names its version.
export const PYODIDE_FOLDER = null;
