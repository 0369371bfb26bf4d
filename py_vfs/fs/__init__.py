"""The file system over the disk and mounted folders: the resolver, the POSIX rules, files, the
namespace, metadata, copies, search and steps."""
