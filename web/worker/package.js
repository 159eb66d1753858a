// The fitproof functions the worker calls, once the package is imported in Pyodide.

export const python = {
  checkText: null,  // fitproof._envelope.check_text
  formatJson: null,  // fitproof._envelope.format_json
  page: null,  // fitproof._page: which rank files an input needs, loading them, the token view
};

// The package's version line, once its functions are bound.
export function bindPackage(pyodide) {
  python.checkText = pyodide.globals.get("check_text");
  python.formatJson = pyodide.globals.get("format_json");
  python.page = pyodide.globals.get("_page");
  return pyodide.runPython("fitproof.__version__ + ' on Python ' + sys.version.split()[0]");
}
