// The page's elements are looked up by id, where they are used (index.html holds them all).
export const $ = (id) => document.getElementById(id);

// A new element with a class (none when empty) and a text (none when left out): el("p", "hint", text).
export const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  return node;
};
