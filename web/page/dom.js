// The page's elements are looked up by id, where they are used (index.html holds them all).
export const $ = (id) => document.getElementById(id);
