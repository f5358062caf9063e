/**
 * Builds elements from text only. Nothing here sets innerHTML: every string an event
 * holds is untrusted and reaches the page as a text node.
 */
export interface ElementOptions {
  className?: string;
  text?: string;
  attributes?: Record<string, string>;
}

export type Child = Node | string | null | undefined | false;

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  children: readonly Child[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [name, value] of Object.entries(options.attributes ?? {})) node.setAttribute(name, value);
  append(node, children);
  return node;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replaces the children of `parent`. */
export function replaceChildren(parent: Element, children: readonly Child[]): void {
  parent.textContent = '';
  append(parent, children);
}
